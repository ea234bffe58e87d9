/** Add / edit a project: name, description, tags. */
import { useEffect } from 'react';
import { App, Form, Input, Modal, Select } from 'antd';
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
      form: { ...values, name: values.name.trim(), tags: values.tags ?? [] },
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
      </Form>
    </Modal>
  );
}
