import { Button, Card, Result, Skeleton } from 'antd';
import { useNavigate } from 'react-router';

/** What a detail screen shows while its entity loads, or when it does not exist (with a way back to the list). */
export function DetailFallback(props: {
  page: string;
  loading: boolean;
  notFound: string;
  backTo: string;
  backLabel: string;
}) {
  const navigate = useNavigate();
  return (
    <div className="app-page" data-page={props.page}>
      <Card>
        {props.loading ? (
          <Skeleton active paragraph={{ rows: 8 }} />
        ) : (
          <Result
            status="404"
            title={props.notFound}
            extra={
              <Button type="primary" onClick={() => navigate(props.backTo)}>
                {props.backLabel}
              </Button>
            }
          />
        )}
      </Card>
    </div>
  );
}
