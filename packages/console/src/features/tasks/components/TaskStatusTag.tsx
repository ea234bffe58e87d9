/** Status tag with the product's labels (Pending, Running, Finished, Error, Cancelled, Abnormal, NA) and colours. */
import { Tag } from 'antd';
import {
  CheckCircleOutlined,
  ClockCircleOutlined,
  CloseCircleOutlined,
  ExclamationCircleOutlined,
  MinusCircleOutlined,
  QuestionCircleOutlined,
  SyncOutlined,
} from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { STATUS_COLORS } from '../format.ts';

const ICONS: Record<string, JSX.Element> = {
  pending: <ClockCircleOutlined />,
  running: <SyncOutlined spin />,
  finished: <CheckCircleOutlined />,
  error: <CloseCircleOutlined />,
  cancelled: <MinusCircleOutlined />,
  abnormal: <ExclamationCircleOutlined />,
  na: <QuestionCircleOutlined />,
};

export default function TaskStatusTag({ status }: { status: string | null | undefined }) {
  const { t } = useTranslation('tasks');
  const s = status && STATUS_COLORS[status] ? status : 'na';
  return (
    <Tag color={STATUS_COLORS[s]} icon={ICONS[s]} className={`task-status task-status-${s}`} data-status={s}>
      {t(`status.${s}`)}
    </Tag>
  );
}
