/** The Rules tab's header: its introduction and the Extract fields, Preview and Convert to customized buttons. */
import { Button, Space, Tooltip, Typography } from 'antd';
import { EyeOutlined, SwapOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';

interface RulesToolbarProps {
  busy: null | 'extract' | 'preview' | 'convert';
  onExtract: () => Promise<void>;
  onPreview: () => Promise<void>;
  onConvert: () => void;
}

export default function RulesToolbar({ busy, onExtract, onPreview, onConvert }: RulesToolbarProps) {
  const { t } = useTranslation('configSpider');
  return (
    <div className="rules-header">
      <Typography.Text type="secondary">{t('configSpider:rulesIntro')}</Typography.Text>
      <Space wrap>
        <Tooltip title={t('configSpider:extractHint')}>
          <Button
            icon={<ThunderboltOutlined />}
            onClick={() => void onExtract()}
            loading={busy === 'extract'}
            data-tour="config-extract-fields"
            data-testid="rules-extract"
          >
            {t('configSpider:extract')}
          </Button>
        </Tooltip>
        <Button
          icon={<EyeOutlined />}
          onClick={() => void onPreview()}
          loading={busy === 'preview'}
          data-tour="config-preview"
          data-testid="rules-preview"
        >
          {t('configSpider:preview')}
        </Button>
        <Button
          icon={<SwapOutlined />}
          onClick={onConvert}
          loading={busy === 'convert'}
          data-tour="config-convert"
          data-testid="rules-convert"
        >
          {t('configSpider:convert')}
        </Button>
      </Space>
    </div>
  );
}
