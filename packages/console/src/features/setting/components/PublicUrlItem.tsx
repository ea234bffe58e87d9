/** Settings → General (admin): the console's address as people open it; notifications link to tasks under it. */
import { useEffect, useState } from 'react';
import { Button, Form, Input, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSaveSetting } from '../api.ts';
import { toasts } from '../../../api/toasts.ts';

export function PublicUrlItem({ value }: { value: string }) {
  const { t } = useTranslation(['setting', 'common']);
  const save = useSaveSetting();
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  return (
    <Form.Item label={t('general.publicUrl')} extra={t('general.publicUrlHint')}>
      <Space.Compact style={{ width: '100%' }}>
        <Input
          value={text}
          maxLength={2000}
          placeholder="https://crawl.example.com"
          onChange={(e) => setText(e.target.value)}
          data-testid="public-url"
        />
        <Button
          type="primary"
          loading={save.isPending}
          onClick={async () => {
            try {
              await save.mutateAsync({ public_url: text.trim() });
              void toasts().success(t('general.saved'));
            } catch {
              // the request layer has shown the reason (not an http or https address)
            }
          }}
        >
          {t('common:save')}
        </Button>
      </Space.Compact>
    </Form.Item>
  );
}
