/** /disclaimer: lawful crawling, robots.txt, personal data, no warranty — in both languages. */
import { Card, Typography } from 'antd';
import { useTranslation } from 'react-i18next';

const SECTIONS = ['lawful', 'robots', 'data', 'warranty', 'third', 'accept'] as const;

export default function DisclaimerPage() {
  const { t } = useTranslation(['disclaimer', 'route']);
  return (
    <div className="app-page" data-page="disclaimer">
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:disclaimer')}
        </Typography.Title>
      </div>
      <Card>
        <Typography style={{ maxWidth: 860 }}>
          <Typography.Paragraph type="secondary">{t('updated')}</Typography.Paragraph>
          {SECTIONS.map((s) => (
            <section key={s}>
              <Typography.Title level={5}>{t(`sections.${s}Title`)}</Typography.Title>
              <Typography.Paragraph>{t(`sections.${s}`)}</Typography.Paragraph>
            </section>
          ))}
        </Typography>
      </Card>
    </div>
  );
}
