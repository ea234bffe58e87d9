/** Error boundary of a route: a screen that fails to load or render is shown as an error, the shell stays usable. */
import { Button, Result } from 'antd';
import { useRouteError } from 'react-router';
import { useTranslation } from 'react-i18next';

export default function RouteError() {
  const error = useRouteError();
  const { t } = useTranslation(['common']);
  const detail = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  if (error) console.error(error);
  return (
    <div className="app-page route-error" data-page="route-error">
      <Result
        status="error"
        title={t('common:screenError')}
        subTitle={detail}
        extra={
          <Button type="primary" onClick={() => window.location.reload()}>
            {t('common:reload')}
          </Button>
        }
      />
    </div>
  );
}
