'use strict';
/**
 * Crawlab compatibility for Node.js spiders: `const crawlab = require('crawlab-sdk')` with `saveItem`, `saveItems`
 * and `close` as Crawlab's SDK has them (promises), storing items through the Crawldeck SDK. Nothing to close:
 * items are written as they are saved.
 */
const crawldeck = require('../crawldeck');

module.exports = {
  saveItem: async (item) => crawldeck.saveItem(item),
  saveItems: async (items) => crawldeck.saveItems(items),
  close: async () => undefined,
  getTaskId: () => process.env.CRAWLAB_TASK_ID || crawldeck.taskId(),
};
