"""Crawlab's Scrapy pipelines by their names: ITEM_PIPELINES = {'crawlab.pipelines.CrawlabMongoPipeline': 888}.

A `scrapy crawl` task gets Crawldeck's own pipeline added by the node; where it runs, it stores the items and
Crawlab's pipeline passes them on, so no item is stored twice. Without it (CRAWLDECK_SCRAPY_PIPELINE=0), Crawlab's
pipeline stores them.
"""
from crawldeck.scrapy import CrawldeckPipeline

_OURS = "crawldeck.scrapy.CrawldeckPipeline"


class CrawlabPipeline(CrawldeckPipeline):
    stores = True

    @classmethod
    def from_crawler(cls, crawler):
        pipeline = cls()
        pipeline.stores = _OURS not in crawler.settings.getwithbase("ITEM_PIPELINES")
        return pipeline

    def process_item(self, item, spider):
        if not self.stores:
            return item
        return super().process_item(item, spider)


class CrawlabMongoPipeline(CrawlabPipeline):
    pass
