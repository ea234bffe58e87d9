import { Button, Result } from 'antd';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';

export default function NotFoundPage() {
  const { t } = useTranslation(['layout']);
  const navigate = useNavigate();
  return (
    <div
      style={{
        minHeight: '100vh',
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        background: '#f0f2f5',
      }}
    >
      <Result
        status="404"
        title={t('layout:notFound.title')}
        subTitle={t('layout:notFound.text')}
        extra={
          <Button type="primary" onClick={() => navigate('/home')}>
            {t('layout:notFound.back')}
          </Button>
        }
      />
    </div>
  );
}
