/**
 * The one name of the items tree being edited: checks it is a Python identifier not used twice at its level,
 * keeps it, or drops it (with the node itself when the node was just added and left empty).
 */
import { useState, type Dispatch, type SetStateAction } from 'react';
import { App } from 'antd';
import { useTranslation } from 'react-i18next';
import type { ScrapyItem } from '@crawldeck/shared';
import { IDENT } from './scrapySection.tsx';

/** An item class (no field) or one of its fields, with the name as typed so far. */
export type ItemEditing = { item: number; field?: number; value: string } | null;

export function useItemEditing(
  items: ScrapyItem[],
  change: (fn: (xs: ScrapyItem[]) => ScrapyItem[]) => void,
  setExpanded: Dispatch<SetStateAction<string[]>>,
) {
  const { t } = useTranslation('scrapy');
  const { message } = App.useApp();
  const [editing, setEditing] = useState<ItemEditing>(null);

  const editProblem = (e: NonNullable<ItemEditing>): string => {
    const v = e.value.trim();
    if (!IDENT.test(v)) return t('identifier');
    if (e.field === undefined) {
      if (items.some((x, i) => i !== e.item && x.name === v)) return t('items.itemTwice', { name: v });
    } else if (items[e.item]?.fields.some((f, j) => j !== e.field && f === v))
      return t('items.fieldTwice', { name: v });
    return '';
  };

  const commit = () => {
    if (!editing) return;
    const problem = editProblem(editing);
    if (problem) {
      void message.error(problem);
      return;
    }
    const v = editing.value.trim();
    change((xs) => {
      if (editing.field === undefined) xs[editing.item].name = v;
      else xs[editing.item].fields[editing.field] = v;
      return xs;
    });
    setEditing(null);
  };

  const cancelEdit = () => {
    // a just-added node left empty is dropped again
    if (editing && !editing.value.trim()) {
      const e = editing;
      if (e.field === undefined && !items[e.item]?.name) change((xs) => xs.filter((_, i) => i !== e.item));
      else if (e.field !== undefined && !items[e.item]?.fields[e.field])
        change((xs) => ((xs[e.item].fields = xs[e.item].fields.filter((_, j) => j !== e.field)), xs));
    }
    setEditing(null);
  };

  const addItem = () => {
    const idx = items.length;
    change((xs) => [...xs, { name: '', fields: [] }]);
    setExpanded((ks) => [...ks, `i${idx}`]);
    setEditing({ item: idx, value: '' });
  };

  const addField = (item: number) => {
    const idx = items[item].fields.length;
    change((xs) => ((xs[item].fields = [...xs[item].fields, '']), xs));
    setExpanded((ks) => (ks.includes(`i${item}`) ? ks : [...ks, `i${item}`]));
    setEditing({ item, field: idx, value: '' });
  };

  return { editing, setEditing, commit, cancelEdit, addItem, addField };
}
