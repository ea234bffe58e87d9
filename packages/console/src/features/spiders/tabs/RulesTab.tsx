/**
 * Spider detail, Rules tab: the Spiderfile of a configurable spider as a form — start URL, start stage, engine,
 * settings (robots.txt, delay, max pages), stages (list selector, pagination, fields with css|xpath, attr,
 * next_stage, remark). "Extract fields" suggests the list selector and fields from the start page, "Preview" shows
 * the first rows the form would extract, "Convert to customized" generates a Scrapy project. The Config tab edits
 * the same Spiderfile as text through the same query (toolsApi.useSpiderfile).
 */
import { Alert, Button, Form, Result, Skeleton, Typography } from 'antd';
import { PlusOutlined, SaveOutlined, UndoOutlined } from '@ant-design/icons';
import { useLocation, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { errorText } from '../toolsApi.ts';
import { emptyStage, toRulesValues, type RulesValues } from './rulesModel.ts';
import type { SpiderTabProps } from './types.ts';
import RulesPreview from './rules/RulesPreview.tsx';
import RulesStartFields from './rules/RulesStartFields.tsx';
import RulesToolbar from './rules/RulesToolbar.tsx';
import StageCard from './rules/StageCard.tsx';
import { useRulesEditor } from './rules/useRulesEditor.ts';
import '../components/tools.css';
import TourFor from '../../tours/TourFor.tsx';

export function NotConfigurable({ tab }: { tab: 'rules' | 'config' }) {
  const { t } = useTranslation('configSpider');
  return (
    <div className={`${tab}-not-config`} data-testid={`${tab}-not-configurable`}>
      <Result status="info" title={t('notConfigurableTitle')} subTitle={t('notConfigurableText')} />
    </div>
  );
}

/** Jumps to another tab of the spider detail (the page follows `?tab=`). */
export function useGoToTab() {
  const location = useLocation();
  const navigate = useNavigate();
  return (tab: string) => {
    const params = new URLSearchParams(location.search);
    params.set('tab', tab);
    navigate({ pathname: location.pathname, search: `?${params.toString()}` }, { replace: true });
  };
}

export default function RulesTab({ spider }: SpiderTabProps) {
  const { t } = useTranslation(['configSpider', 'common']);
  const goTo = useGoToTab();
  const editor = useRulesEditor(spider, goTo);
  const { form, sfQuery, base, stages, stageNames, dirty, setDirty, saving, error, preview, previewError } = editor;
  const { onSave, onReset, changedElsewhere } = editor;

  if (spider.type !== 'configurable') return <NotConfigurable tab="rules" />;
  if (sfQuery.isLoading) return <Skeleton active paragraph={{ rows: 10 }} />;
  if (sfQuery.isError)
    return (
      <Alert type="error" showIcon message={t('configSpider:loadFailed')} description={errorText(sfQuery.error)} />
    );
  if (!base) {
    return (
      <Alert
        type="warning"
        showIcon
        message={t('configSpider:invalidStored')}
        description={
          <>
            <ul className="config-problems">
              {(sfQuery.data?.problems ?? []).map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
            <Button size="small" onClick={() => goTo('config')}>
              {t('configSpider:openConfig')}
            </Button>
          </>
        }
        data-testid="rules-invalid-stored"
      />
    );
  }

  return (
    <div className="rules-tab" data-testid="rules-tab">
      <TourFor name="spider-detail-config" />
      <RulesToolbar
        busy={editor.busy}
        onExtract={editor.onExtract}
        onPreview={editor.onPreview}
        onConvert={editor.onConvert}
      />
      {changedElsewhere && (
        <Alert
          type="warning"
          showIcon
          className="rules-changed"
          message={t('configSpider:changedElsewhere')}
          action={
            <Button size="small" onClick={onReset}>
              {t('configSpider:loadSaved')}
            </Button>
          }
          style={{ marginBottom: 12 }}
        />
      )}
      <Form<RulesValues>
        form={form}
        layout="vertical"
        initialValues={toRulesValues(base)}
        onValuesChange={() => setDirty(true)}
        className="rules-form"
        data-testid="rules-form"
      >
        <RulesStartFields stageNames={stageNames} />
        <Form.List name="stages">
          {(stageItems, { add: addStage, remove: removeStage }) => (
            <div data-tour="config-stages">
              {stageItems.map((stageItem, si) => (
                <StageCard
                  key={stageItem.key}
                  si={si}
                  st={stages?.[si]}
                  stages={stages}
                  stageNames={stageNames}
                  canRemove={stageItems.length > 1}
                  onRemove={() => removeStage(stageItem.name)}
                />
              ))}
              <Button
                type="dashed"
                block
                icon={<PlusOutlined />}
                onClick={() => {
                  const names = new Set(stageNames);
                  let n = stageItems.length + 1;
                  while (names.has(`stage_${n}`)) n++;
                  addStage(emptyStage(names.has('detail') ? `stage_${n}` : 'detail'));
                }}
                data-tour="config-add-stage"
                data-testid="rules-stage-add"
              >
                {t('configSpider:addStage')}
              </Button>
            </div>
          )}
        </Form.List>

        {error && (
          <Alert
            type="error"
            showIcon
            className="rules-error"
            message={t('configSpider:saveFailed')}
            description={error}
            style={{ marginTop: 16 }}
            data-testid="rules-error"
          />
        )}
        <div className="rules-actions">
          <Typography.Text type={dirty ? 'warning' : 'secondary'} className="rules-actions-hint">
            {dirty ? t('configSpider:unsaved') : t('configSpider:savedHint')}
          </Typography.Text>
          <Button icon={<UndoOutlined />} onClick={onReset} disabled={!dirty}>
            {t('configSpider:reset')}
          </Button>
          <Button
            type="primary"
            icon={<SaveOutlined />}
            onClick={() => void onSave()}
            loading={saving}
            data-tour="config-save"
            data-testid="rules-save"
          >
            {t('common:save')}
          </Button>
        </div>
      </Form>
      {(preview || previewError) && <RulesPreview preview={preview} previewError={previewError} />}
    </div>
  );
}
