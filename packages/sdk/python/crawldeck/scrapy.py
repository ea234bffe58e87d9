"""Scrapy item pipeline: add to ITEM_PIPELINES, e.g. {"crawldeck.scrapy.CrawldeckPipeline": 300}."""
from . import save_item


class CrawldeckPipeline:
    def process_item(self, item, spider):
        try:
            from itemadapter import ItemAdapter

            data = ItemAdapter(item).asdict()
        except ImportError:  # very old Scrapy
            data = dict(item)
        save_item(data)
        return item
