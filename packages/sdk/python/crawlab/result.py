"""`from crawlab.result import save_item, save_items`, as Crawlab's examples import them."""
from crawldeck import save_item, save_items

__all__ = ["save_item", "save_items"]
