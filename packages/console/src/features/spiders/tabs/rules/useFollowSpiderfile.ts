/**
 * The Rules form and the Config tab edit the same Spiderfile: a save in the Config tab loads into this form,
 * unless the form has unsaved edits, in which case the form only learns that the file changed elsewhere.
 */
import { useEffect, useRef, type Dispatch, type SetStateAction } from 'react';
import type { FormInstance } from 'antd';
import type { SpiderfileState } from '../../toolsApi.ts';
import { toRulesValues, type RulesValues } from '../rulesModel.ts';

export function useFollowSpiderfile(
  data: SpiderfileState | undefined,
  form: FormInstance<RulesValues>,
  dirty: boolean,
  setChangedElsewhere: Dispatch<SetStateAction<boolean>>,
) {
  const base = data?.spiderfile ?? null;
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;

  const contentKey = data ? data.content || JSON.stringify(data.spiderfile) : '';
  useEffect(() => {
    if (!base) return;
    if (dirtyRef.current) {
      setChangedElsewhere(true);
      return;
    }
    form.setFieldsValue(toRulesValues(base));
    setChangedElsewhere(false);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [contentKey]);
}
