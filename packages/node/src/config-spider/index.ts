/**
 * The configurable-spider engine as the master uses it for previews (a crawl of a few pages in the master's own
 * process, through the outbound policy's fetcher) and conversion to a Scrapy project.
 */
export { ConfigCrawler, crawlSettings, type CrawlStats, type Fetcher } from './engine.ts';
export { extractFields } from './extract.ts';
