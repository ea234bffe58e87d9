/** Parts of the items tree: the inline name editor and the buttons beside a class or a field. */
import type { ReactNode } from 'react';
import { Button, Input, Space, Tooltip } from 'antd';
import { CheckOutlined, CloseOutlined, DeleteOutlined, EditOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';

/** Renames an item class or a field in place: Enter or the tick keeps the name, Escape or the cross drops it. */
export function ItemNameEditor({
  value,
  onChange,
  onCommit,
  onCancel,
}: {
  value: string;
  onChange(v: string): void;
  onCommit(): void;
  onCancel(): void;
}) {
  const { t } = useTranslation('scrapy');
  return (
    <Space.Compact size="small" className="scrapy-tree-editor">
      <Input
        autoFocus
        size="small"
        className="mono-input"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onPressEnter={onCommit}
        onKeyDown={(e) => e.key === 'Escape' && onCancel()}
        onClick={(e) => e.stopPropagation()}
        data-testid="item-name-input"
      />
      <Button
        size="small"
        icon={<CheckOutlined />}
        onClick={(e) => (e.stopPropagation(), onCommit())}
        aria-label={t('ok')}
        data-testid="item-name-ok"
      />
      <Button
        size="small"
        icon={<CloseOutlined />}
        onClick={(e) => (e.stopPropagation(), onCancel())}
        aria-label={t('cancel')}
      />
    </Space.Compact>
  );
}

/** Rename and remove, after any extra buttons; clicks stay out of the tree so a node does not fold. */
export function TreeNodeActions({
  onEdit,
  onDelete,
  children,
}: {
  onEdit(): void;
  onDelete(): void;
  children?: ReactNode;
}) {
  const { t } = useTranslation('scrapy');
  return (
    <span className="scrapy-tree-actions" onClick={(e) => e.stopPropagation()}>
      {children}
      <Tooltip title={t('items.rename')}>
        <Button
          type="text"
          size="small"
          icon={<EditOutlined />}
          onClick={onEdit}
          aria-label={t('items.rename')}
          data-testid="item-rename"
        />
      </Tooltip>
      <Tooltip title={t('remove')}>
        <Button
          type="text"
          size="small"
          danger
          icon={<DeleteOutlined />}
          onClick={onDelete}
          aria-label={t('remove')}
          data-testid="item-delete"
        />
      </Tooltip>
    </span>
  );
}
