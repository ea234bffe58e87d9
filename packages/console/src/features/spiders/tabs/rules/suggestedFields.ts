/** Fields suggested from the start page, placed into the Rules form's start stage. */
import type { ExtractFieldsResult } from '@crawldeck/shared';
import { emptyStage, type RulesField, type RulesStage } from '../rulesModel.ts';

/**
 * The stages with the start stage (the first when none is named) turned into a list of the suggested rows and
 * fields, paging through the suggested next-page link when one was found.
 */
export function withSuggestedFields(
  all: RulesStage[],
  startName: string | undefined,
  found: ExtractFieldsResult,
): RulesStage[] {
  let idx = all.findIndex((s) => s.name === startName);
  if (idx < 0) idx = 0;
  const target = all[idx] ?? emptyStage('list', true);
  // keep fields that lead to another stage (detail links); the suggestion replaces the rest
  const follow = target.fields.filter((f) => f.next_stage);
  const fields: RulesField[] = [
    ...found.fields.map((f) => ({
      name: f.name,
      sel: (f.xpath ? 'xpath' : 'css') as RulesField['sel'],
      selector: f.xpath || f.css,
      attr: f.attr,
      remark: f.remark,
    })),
    ...follow.filter((f) => !found.fields.some((x) => x.name === f.name)),
  ];
  const next: RulesStage = {
    ...target,
    is_list: true,
    list_sel: 'css',
    list_selector: found.list_css,
    ...(found.page_css ? { page_sel: 'css' as const, page_selector: found.page_css } : {}),
    fields,
  };
  const copy = [...all];
  copy[idx] = next;
  return copy;
}
