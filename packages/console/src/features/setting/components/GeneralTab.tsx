/** Settings → General: tutorial (server default for admins, this browser for everyone), language, page size, stats. */
import { useEffect, useState } from 'react';
import { Button, Card, Form, Input, Radio, Select, Space, Switch, Table } from 'antd';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, type ActionSummaryRow, type Language } from '@crawldeck/shared';
import { useAppStore } from '../../../app/stores/app.ts';
import { switchLanguage } from '../../../app/language.ts';
import { PAGE_SIZE_OPTIONS, getDefaultPageSize, setDefaultPageSize } from '../preferences.ts';
import { useActionSummary, useAdminSetting, useSaveSetting } from '../api.ts';
import { OutboundAllowItem } from './OutboundAllowItem.tsx';
import { PublicUrlItem } from './PublicUrlItem.tsx';
import { SettingSwitch } from './SettingSwitch.tsx';
import { NodeAccessSwitches } from './NodeAccessSwitches.tsx';
import { toasts } from '../../../api/toasts.ts';

export function GeneralTab({ isAdmin }: { isAdmin: boolean }) {
  const { t } = useTranslation(['setting', 'common']);
  const language = useAppStore((s) => s.language);
  const publicSetting = useAppStore((s) => s.setting);
  const adminSetting = useAdminSetting(isAdmin);
  const save = useSaveSetting();
  const summary = useActionSummary(isAdmin);
  const [pageSize, setPageSize] = useState(getDefaultPageSize());
  const [localTutorial, setLocalTutorial] = useState(localStorage.getItem('enableTutorial') === '1');
  const [useStats, setUseStats] = useState(localStorage.getItem('useStats') !== '0');
  const [endpoint, setEndpoint] = useState('');
  useEffect(() => setEndpoint(adminSetting.data?.stats_endpoint ?? ''), [adminSetting.data?.stats_endpoint]);
  const serverTutorial = (adminSetting.data?.enable_tutorial ?? publicSetting?.enable_tutorial) === 'Y';
  const publicSignup = publicSetting?.allow_signup;
  const allowSignup =
    adminSetting.data?.allow_signup ?? (publicSignup === 'Y' || publicSignup === 'N' ? publicSignup : undefined);

  const saved = () => void toasts().success(t('general.saved'));

  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <Form layout="horizontal" labelCol={{ flex: '260px' }} labelAlign="left" colon={false} style={{ maxWidth: 860 }}>
        <Form.Item label={t('general.tutorial')} extra={isAdmin ? t('general.tutorialHint') : t('general.adminOnly')}>
          <Radio.Group
            value={serverTutorial ? 'Y' : 'N'}
            disabled={!isAdmin || save.isPending}
            onChange={async (e) => {
              await save.mutateAsync({ enable_tutorial: e.target.value as 'Y' | 'N' });
              saved();
            }}
            options={[
              { value: 'Y', label: 'Y' },
              { value: 'N', label: 'N' },
            ]}
            data-testid="enable-tutorial"
          />
        </Form.Item>
        <SettingSwitch
          setting="allow_signup"
          value={allowSignup}
          label={t('general.allowSignup')}
          hint={t('general.allowSignupHint')}
          isAdmin={isAdmin}
          testId="allow-signup"
        />
        <Form.Item label={t('general.tutorialLocal')}>
          <Switch
            checked={localTutorial}
            onChange={(v) => {
              localStorage.setItem('enableTutorial', v ? '1' : '0');
              setLocalTutorial(v);
            }}
          />
        </Form.Item>
        <Form.Item label={t('general.language')}>
          <Select<Language>
            style={{ width: 200 }}
            value={language}
            onChange={(l) => switchLanguage(l)}
            options={LANGUAGES.map((l) => ({ value: l, label: t(`common:languages.${l}`) }))}
            data-testid="setting-language"
          />
        </Form.Item>
        <Form.Item label={t('general.pageSize')} extra={t('general.pageSizeHint')}>
          <Select<number>
            style={{ width: 200 }}
            value={pageSize}
            onChange={(v) => {
              setDefaultPageSize(v);
              setPageSize(v);
              saved();
            }}
            options={PAGE_SIZE_OPTIONS.map((n) => ({ value: n, label: n }))}
            data-testid="setting-page-size"
          />
        </Form.Item>
        <Form.Item label={t('general.useStats')}>
          <Switch
            checked={useStats}
            onChange={(v) => {
              localStorage.setItem('useStats', v ? '1' : '0');
              setUseStats(v);
            }}
          />
        </Form.Item>
        {isAdmin ? (
          <NodeAccessSwitches
            onMaster={adminSetting.data?.user_tasks_on_master}
            unsandboxed={adminSetting.data?.user_tasks_unsandboxed}
            joinSharedKey={adminSetting.data?.node_join_shared_key}
          />
        ) : null}
        {isAdmin ? (
          <Form.Item label={t('general.statsEndpoint')} extra={t('general.statsEndpointHint')}>
            <Space.Compact style={{ width: '100%' }}>
              <Input
                value={endpoint}
                placeholder="https://stats.example.com/collect"
                onChange={(e) => setEndpoint(e.target.value)}
              />
              <Button
                type="primary"
                loading={save.isPending}
                onClick={async () => {
                  await save.mutateAsync({ stats_endpoint: endpoint.trim() });
                  saved();
                }}
              >
                {t('common:save')}
              </Button>
            </Space.Compact>
          </Form.Item>
        ) : null}
        {isAdmin ? <OutboundAllowItem value={adminSetting.data?.outbound_allow ?? ''} /> : null}
        {isAdmin ? <PublicUrlItem value={adminSetting.data?.public_url ?? ''} /> : null}
      </Form>
      {isAdmin ? (
        <Card size="small" title={t('general.usage')} data-testid="usage-summary">
          <Table<ActionSummaryRow>
            size="small"
            rowKey="type"
            loading={summary.isLoading}
            dataSource={summary.data ?? []}
            pagination={false}
            locale={{ emptyText: t('general.noUsage') }}
            columns={[
              { title: t('general.eventType'), dataIndex: 'type' },
              { title: t('general.count'), dataIndex: 'count', width: 160, align: 'right' },
              { title: t('general.users'), dataIndex: 'users', width: 160, align: 'right' },
            ]}
          />
        </Card>
      ) : null}
    </Space>
  );
}
