/** Add / edit a project: name, description, tags, and how many tasks of its spiders may run at once. */
import { useEffect } from 'react';
import { App, Form, Input, InputNumber, Modal, Select } from 'antd';
import { MAX_RUNNING_MAX } from '@crawldeck/shared';
import { useTranslation } from 'react-i18next';
import { useProjectTags, useSaveProject } from '../api.ts';
import type { Project, ProjectForm } from '../types.ts';

interface Props {
  open: boolean;
  project?: Project | null;
  onClose: () => void;
}

export default function ProjectFormModal({ open, project, onClose }: Props) {
  const { t } = useTranslation(['projects', 'common']);
  const { message } = App.useApp();
  const [form] = Form.useForm<ProjectForm>();
  const tags = useProjectTags();
  const save = useSaveProject();

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    if (project)
      form.setFieldsValue({
        name: project.name,
        description: project.description,
        tags: project.tags ?? project.tag ?? [],
        max_running: project.max_running || undefined,
      });
  }, [open, project, form]);

  const onOk = async () => {
    let values: ProjectForm;
    try {
      values = await form.validateFields();
    } catch {
      void message.error(t('projects:submitErrors'));
      return;
    }
    await save.mutateAsync({
      id: project?._id,
      form: { ...values, name: values.name.trim(), tags: values.tags ?? [], max_running: values.max_running ?? 0 },
    });
    void message.success(t('projects:saved'));
    onClose();
  };

  return (
    <Modal
      open={open}
      title={project ? t('projects:editTitle') : t('projects:addTitle')}
      okText={t('common:save')}
      cancelText={t('common:cancel')}
      onOk={() => void onOk().catch(() => undefined)}
      confirmLoading={save.isPending}
      onCancel={onClose}
      destroyOnHidden
      className="project-form-modal"
    >
      <Form form={form} layout="vertical" preserve={false}>
        <Form.Item
          name="name"
          label={t('projects:fields.name')}
          rules={[{ required: true, whitespace: true, message: t('projects:rules.nameRequired') }, { max: 100 }]}
        >
          <Input placeholder={t('projects:placeholders.name')} maxLength={100} autoFocus data-testid="project-name" />
        </Form.Item>
        <Form.Item name="description" label={t('projects:fields.description')}>
          <Input.TextArea
            placeholder={t('projects:placeholders.description')}
            autoSize={{ minRows: 3, maxRows: 6 }}
            maxLength={1000}
          />
        </Form.Item>
        <Form.Item name="tags" label={t('projects:fields.tags')}>
          <Select
            mode="tags"
            placeholder={t('projects:placeholders.tags')}
            options={(tags.data ?? []).map((tag) => ({ value: tag, label: tag }))}
            tokenSeparators={[',', '，']}
            data-testid="project-tags"
          />
        </Form.Item>
        <Form.Item name="max_running" label={t('projects:fields.maxRunning')} tooltip={t('projects:hints.maxRunning')}>
          <InputNumber
            min={0}
            max={MAX_RUNNING_MAX}
            precision={0}
            placeholder={t('projects:placeholders.maxRunning')}
            style={{ width: '100%' }}
            data-testid="project-max-running"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}
