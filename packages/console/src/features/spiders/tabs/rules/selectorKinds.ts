/** The selector languages a Rules field, list or pagination selector is written in. */
export const SELECTOR_KINDS = [
  { value: 'css', label: 'CSS' },
  { value: 'xpath', label: 'XPath' },
];
