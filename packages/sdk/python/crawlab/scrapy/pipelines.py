"""`crawlab.scrapy.pipelines.CrawlabPipeline`, the pipeline's name in Crawlab's newer SDK."""
from crawlab.pipelines import CrawlabPipeline

__all__ = ["CrawlabPipeline"]
