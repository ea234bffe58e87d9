"""Crawlab compatibility: spiders written for Crawlab's SDK run unchanged on Crawldeck.

`from crawlab import save_item, save_items` and Crawlab's Scrapy pipelines store items through the Crawldeck SDK
(the task's items, in the spider's results collection). The node also sets the environment variables Crawlab's SDK
and spiders read: CRAWLAB_TASK_ID, CRAWLAB_SPIDER_ID, CRAWLAB_NODE_ID, CRAWLAB_COLLECTION and the dedupe ones.
Crawlab's database connection, gRPC client and CLI have no counterpart: items go where Crawldeck stores them.
"""
from crawldeck import save_item, save_items

from .config import get_task_id
from .pipelines import CrawlabMongoPipeline, CrawlabPipeline

__all__ = ["save_item", "save_items", "get_task_id", "CrawlabPipeline", "CrawlabMongoPipeline"]
