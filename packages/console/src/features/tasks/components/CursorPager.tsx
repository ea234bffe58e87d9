/**
 * Pager of a list walked by cursor: first, previous, next and last page, the page number while it is known, and
 * the total, which a long list gives only up to a cap ("more than 10,000 tasks"). A page number is known from the
 * first page on, and from the last page when the total is exact; after a jump to the last page of a capped list
 * it is not, and the pager shows none.
 */
import { Button, Space, Tooltip, Typography } from 'antd';
import { DoubleLeftOutlined, DoubleRightOutlined, LeftOutlined, RightOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';

export interface CursorPagerProps {
  total: number;
  capped: boolean;
  /** The page number when known (null after jumping to the last page of a capped list). */
  page: number | null;
  pageSize: number;
  hasPrev: boolean;
  hasNext: boolean;
  onFirst(): void;
  onPrev(): void;
  onNext(): void;
  onLast(): void;
}

export default function CursorPager(p: CursorPagerProps) {
  const { t, i18n } = useTranslation('tasks');
  const pages = p.capped ? null : Math.max(1, Math.ceil(p.total / p.pageSize));
  const n = p.total.toLocaleString(i18n.language);
  const label =
    p.page === null ? '' : pages ? t('pager.pageOf', { page: p.page, pages }) : t('pager.page', { page: p.page });
  const button = (key: 'first' | 'prev' | 'next' | 'last', icon: React.ReactNode, enabled: boolean, go: () => void) => (
    <Tooltip title={t(`pager.${key}`)}>
      <Button
        size="small"
        icon={icon}
        disabled={!enabled}
        onClick={go}
        aria-label={t(`pager.${key}`)}
        data-testid={`task-pager-${key}`}
      />
    </Tooltip>
  );
  return (
    <div className="task-pager" data-testid="task-pager">
      <Typography.Text type="secondary" data-testid="task-pager-total">
        {p.capped ? t('totalCapped', { n }) : t('total', { count: p.total, n })}
      </Typography.Text>
      <Space size={4}>
        {button('first', <DoubleLeftOutlined />, p.hasPrev, p.onFirst)}
        {button('prev', <LeftOutlined />, p.hasPrev, p.onPrev)}
        <Typography.Text data-testid="task-pager-page">{label}</Typography.Text>
        {button('next', <RightOutlined />, p.hasNext, p.onNext)}
        {button('last', <DoubleRightOutlined />, p.hasNext, p.onLast)}
      </Space>
    </div>
  );
}
