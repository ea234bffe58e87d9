/** Clearly-labelled empty panel for a spider-detail tab another feature fills in (replace the tab's file). */
import { Empty, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

export default function PlaceholderPanel({ tab }: { tab: string }) {
  const { t } = useTranslation('spiders');
  const label = t(`tabs.${tab}`);
  return (
    <div className="spider-tab-placeholder" data-testid={`tab-placeholder-${tab}`}>
      <Empty
        description={
          <>
            <Typography.Text strong>{label}</Typography.Text>
            <br />
            <Typography.Text type="secondary">{t('tabNotAvailable', { tab: label })}</Typography.Text>
          </>
        }
      />
    </div>
  );
}
