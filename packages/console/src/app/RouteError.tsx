/**
 * Error boundary of a route: a screen that fails to load or render is shown as an error, the shell stays usable.
 * Drawn with a few styles of its own rather than antd's Result, whose illustrations would weigh on every first
 * load for a screen that is rarely seen (and that must show even when no further chunk can be downloaded).
 */
import { Button } from 'antd';
import { CloseCircleFilled } from '@ant-design/icons';
import { useRouteError } from 'react-router';
import { useTranslation } from 'react-i18next';
import './RouteError.css';

export default function RouteError() {
  const error = useRouteError();
  const { t } = useTranslation(['common']);
  const detail = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  if (error) console.error(error);
  return (
    <div className="app-page route-error" data-page="route-error" role="alert">
      <CloseCircleFilled className="route-error-icon" />
      <div className="route-error-title">{t('common:screenError')}</div>
      {detail && <div className="route-error-detail">{detail}</div>}
      <Button type="primary" onClick={() => window.location.reload()}>
        {t('common:reload')}
      </Button>
    </div>
  );
}
