/** The top of the sign-in card: the language switch and the product's name and version. */
import { Segmented, Typography } from 'antd';
import { GlobalOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, PRODUCT_NAME, VERSION_LABEL, type Language } from '@crawldeck/shared';
import { switchLanguage } from '../../app/language.ts';
import { useAppStore } from '../../app/stores/app.ts';

export default function LoginHeader() {
  const { t } = useTranslation(['login', 'common']);
  const language = useAppStore((s) => s.language);
  return (
    <>
      {/* The console opens in Chinese for everyone on a first visit: the switch sits in the card, named in both
          languages, so a reader of either finds it before signing in. */}
      <div className="login-lang" data-testid="login-language">
        <span className="login-lang-label">
          <GlobalOutlined /> {t('login:language')}
        </span>
        <Segmented<Language>
          value={language}
          options={LANGUAGES.map((l) => ({ value: l, label: t(`common:languages.${l}`) }))}
          onChange={(l) => switchLanguage(l)}
        />
      </div>
      <div className="login-brand">
        <span className="login-mark">CD</span>
        <div>
          <Typography.Title level={3} style={{ margin: 0 }}>
            {PRODUCT_NAME} <span className="login-version">{VERSION_LABEL}</span>
          </Typography.Title>
          <Typography.Text type="secondary">{t('login:title')}</Typography.Text>
        </div>
      </div>
    </>
  );
}
