/** Settings → General (admin): the CIDR ranges the master may reach when it fetches for users. */
import { useEffect, useState } from 'react';
import { Button, Form, Input, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSaveSetting } from '../api.ts';
import { toasts } from '../../../api/toasts.ts';

export function OutboundAllowItem({ value }: { value: string }) {
  const { t } = useTranslation(['setting', 'common']);
  const save = useSaveSetting();
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  return (
    <Form.Item label={t('general.outboundAllow')} extra={t('general.outboundAllowHint')}>
      <Space direction="vertical" style={{ width: '100%' }}>
        <Input.TextArea
          value={text}
          rows={3}
          maxLength={4000}
          placeholder="10.20.0.0/16, fd00::/8"
          onChange={(e) => setText(e.target.value)}
          data-testid="outbound-allow"
        />
        <Button
          type="primary"
          loading={save.isPending}
          data-testid="outbound-allow-save"
          onClick={async () => {
            try {
              await save.mutateAsync({ outbound_allow: text.trim() });
              void toasts().success(t('general.saved'));
            } catch {
              // the request layer has shown the reason (e.g. a range that does not parse)
            }
          }}
        >
          {t('common:save')}
        </Button>
      </Space>
    </Form.Item>
  );
}
