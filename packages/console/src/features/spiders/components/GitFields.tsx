/** The Git panel's form: repository URL, branch, user name, write-only password, auto-sync; and its buttons. */
import { AutoComplete, Button, Col, Form, Input, Row, Switch, Tooltip } from 'antd';
import { CloudSyncOutlined, LinkOutlined, RollbackOutlined, SaveOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { gitUrlProblem, gitBranchProblem } from '@crawldeck/shared';

export interface GitValues {
  git_url: string;
  git_branch: string;
  git_username: string;
  git_password: string;
  git_auto_sync: boolean;
}

/** The repository settings; the branch suggests the branches the last sync saw. */
export function GitFields({ branches, passwordSet }: { branches: string[]; passwordSet: boolean }) {
  const { t } = useTranslation('git');
  return (
    <Row gutter={16}>
      <Col xs={24} md={14}>
        <Form.Item
          name="git_url"
          label={t('url')}
          rules={[
            { required: true, whitespace: true, message: t('urlRequired') },
            {
              validator: (_, v: string) => {
                const p = v?.trim() ? gitUrlProblem(v) : null;
                return p ? Promise.reject(new Error(p)) : Promise.resolve();
              },
            },
          ]}
        >
          <Input
            className="mono-input"
            prefix={<LinkOutlined />}
            placeholder="https://github.com/owner/repo.git"
            data-testid="git-url"
          />
        </Form.Item>
      </Col>
      <Col xs={24} md={10}>
        <Form.Item
          name="git_branch"
          label={t('branch')}
          tooltip={t('branchHint')}
          rules={[
            {
              validator: (_, v: string) => {
                const p = v?.trim() ? gitBranchProblem(v.trim()) : null;
                return p ? Promise.reject(new Error(p)) : Promise.resolve();
              },
            },
          ]}
        >
          <AutoComplete
            className="mono-input"
            options={branches.map((b) => ({ value: b, label: b }))}
            placeholder={t('branchDefault')}
            allowClear
            data-testid="git-branch"
          />
        </Form.Item>
      </Col>
      <Col xs={24} md={8}>
        <Form.Item name="git_username" label={t('username')} rules={[{ max: 255 }]}>
          <Input autoComplete="off" data-testid="git-username" />
        </Form.Item>
      </Col>
      <Col xs={24} md={8}>
        <Form.Item
          name="git_password"
          label={t('password')}
          extra={passwordSet ? t('passwordSet') : t('passwordHint')}
          rules={[{ max: 1000 }]}
        >
          <Input.Password
            autoComplete="new-password"
            placeholder={passwordSet ? '••••••' : ''}
            data-testid="git-password"
          />
        </Form.Item>
      </Col>
      <Col xs={24} md={8}>
        <Form.Item name="git_auto_sync" label={t('autoSync')} tooltip={t('autoSyncHint')} valuePropName="checked">
          <Switch data-testid="git-auto-sync" />
        </Form.Item>
      </Col>
    </Row>
  );
}

/** Save and Reset once a repository is connected; Sync (Connect before that). One runs at a time. */
export function GitActions({
  connected,
  busy,
  onSave,
  onReset,
  onSync,
}: {
  connected: boolean;
  busy: null | 'save' | 'sync' | 'reset';
  onSave(): void;
  onReset(): void;
  onSync(): void;
}) {
  const { t } = useTranslation('git');
  return (
    <div className="git-actions">
      {connected && (
        <Button
          icon={<SaveOutlined />}
          onClick={onSave}
          loading={busy === 'save'}
          disabled={!!busy && busy !== 'save'}
          data-testid="git-save"
        >
          {t('save')}
        </Button>
      )}
      {connected && (
        <Tooltip title={t('resetHint')}>
          <Button
            danger
            icon={<RollbackOutlined />}
            onClick={onReset}
            loading={busy === 'reset'}
            disabled={!!busy && busy !== 'reset'}
            data-testid="git-reset"
          >
            {t('reset')}
          </Button>
        </Tooltip>
      )}
      <Button
        type="primary"
        icon={<CloudSyncOutlined />}
        onClick={onSync}
        loading={busy === 'sync'}
        disabled={!!busy && busy !== 'sync'}
        data-testid="git-sync"
      >
        {connected ? t('sync') : t('connect')}
      </Button>
    </div>
  );
}
