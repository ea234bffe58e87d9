'use strict';
/**
 * Crawldeck spider SDK for Node.js: items are appended as JSON lines to the file named by CRAWLDECK_ITEMS,
 * which the Crawldeck node sets for every task (stdout outside a task). No dependencies.
 */
const fs = require('node:fs');

function line(item) {
  if (item === null || typeof item !== 'object' || Array.isArray(item))
    throw new TypeError('an item must be a plain object');
  return JSON.stringify(item) + '\n';
}

function saveItems(items) {
  const data = Array.from(items, line).join('');
  if (!data) return;
  const file = process.env.CRAWLDECK_ITEMS;
  if (!file) {
    process.stdout.write(data);
    return;
  }
  fs.appendFileSync(file, data);
}

function saveItem(item) {
  saveItems([item]);
}

module.exports = { saveItem, saveItems, taskId: () => process.env.CRAWLDECK_TASK_ID || '' };
