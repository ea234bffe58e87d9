/** Settings → Global Variable: list, add, edit, delete (API of the spiders feature; admins change them). */
import { useState } from 'react';
import { Button, Form, Input, Modal, Popconfirm, Space, Table, Typography } from 'antd';
import { DeleteOutlined, EditOutlined, PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import type { Variable } from '@crawldeck/shared';
import { useDeleteVariable, useSaveVariable, useVariables } from '../api.ts';
import { validFields } from '../../../app/submitBlocked.ts';
import { dialogAction } from '../../../app/dialogAction.ts';
import { toasts } from '../../../api/toasts.ts';

const KEY_RULE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function VariablesTab({ isAdmin }: { isAdmin: boolean }) {
  const { t } = useTranslation('setting');
  const vars = useVariables();
  const save = useSaveVariable();
  const del = useDeleteVariable();
  const [editing, setEditing] = useState<Variable | null | undefined>(undefined);
  const [form] = Form.useForm<{ key: string; value: string; remark?: string }>();

  const open = (v: Variable | null) => {
    setEditing(v);
    form.resetFields();
    if (v) form.setFieldsValue({ key: v.key, value: v.value, remark: v.remark });
  };

  const submit = async () => {
    const values = await validFields(form);
    await save.mutateAsync({
      ...(editing ? { _id: editing._id } : {}),
      key: values.key.trim(),
      value: values.value,
      remark: values.remark ?? '',
    });
    void toasts().success(t('variables.saved'));
    setEditing(undefined);
  };

  return (
    <div data-panel="variables">
      <Space style={{ marginBottom: 12 }} wrap>
        {isAdmin ? (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => open(null)} data-testid="add-variable">
            {t('variables.add')}
          </Button>
        ) : null}
        <Typography.Text type="secondary">{t('variables.hint')}</Typography.Text>
      </Space>
      <Table<Variable>
        rowKey="_id"
        size="middle"
        loading={vars.isLoading}
        dataSource={vars.data ?? []}
        pagination={false}
        locale={{ emptyText: t('variables.empty') }}
        columns={[
          {
            title: t('variables.key'),
            dataIndex: 'key',
            render: (v: string) => <Typography.Text code>{v}</Typography.Text>,
          },
          { title: t('variables.value'), dataIndex: 'value', ellipsis: true },
          { title: t('variables.remark'), dataIndex: 'remark', ellipsis: true },
          ...(isAdmin
            ? [
                {
                  title: t('variables.actions'),
                  key: 'actions',
                  width: 200,
                  render: (_: unknown, v: Variable) => (
                    <Space>
                      <Button size="small" icon={<EditOutlined />} onClick={() => open(v)}>
                        {t('variables.edit')}
                      </Button>
                      <Popconfirm
                        title={t('variables.deleteConfirm', { key: v.key })}
                        okButtonProps={{ danger: true }}
                        onConfirm={async () => {
                          await del.mutateAsync(v._id);
                          void toasts().success(t('variables.deleted'));
                        }}
                      >
                        <Button size="small" danger icon={<DeleteOutlined />}>
                          {t('variables.delete')}
                        </Button>
                      </Popconfirm>
                    </Space>
                  ),
                },
              ]
            : []),
        ]}
      />
      <Modal
        open={editing !== undefined}
        title={editing ? t('variables.edit') : t('variables.add')}
        onCancel={() => setEditing(undefined)}
        onOk={dialogAction(submit)}
        confirmLoading={save.isPending}
        destroyOnHidden
      >
        <Form form={form} layout="vertical">
          <Form.Item
            name="key"
            label={t('variables.key')}
            rules={[
              { required: true, message: t('variables.required') },
              { pattern: KEY_RULE, message: t('variables.keyRule') },
            ]}
          >
            <Input autoComplete="off" maxLength={255} />
          </Form.Item>
          <Form.Item
            name="value"
            label={t('variables.value')}
            rules={[{ required: true, message: t('variables.required') }]}
          >
            <Input.TextArea autoSize={{ minRows: 2, maxRows: 8 }} />
          </Form.Item>
          <Form.Item name="remark" label={t('variables.remark')}>
            <Input maxLength={1000} />
          </Form.Item>
        </Form>
      </Modal>
    </div>
  );
}
