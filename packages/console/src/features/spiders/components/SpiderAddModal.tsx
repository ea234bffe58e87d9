/** Add-spider dialog: the two types, the main fields and an optional zip with drag-and-drop and upload progress. */
import { useEffect, useRef, useState } from 'react';
import { Alert, App, Col, Form, Input, Modal, Radio, Row } from 'antd';
import { useTranslation } from 'react-i18next';
import { ApiRequestError } from '../../../api/request.ts';
import { useCreateSpider } from '../api.ts';
import type { Spider, SpiderForm, SpiderType } from '../types.ts';
import ZipDragger from './ZipDragger.tsx';
import TourFor from '../../tours/TourFor.tsx';
import ConfigTemplateFields from './ConfigTemplateFields.tsx';
import SpiderRunFields from './SpiderRunFields.tsx';
import { useCreateConfigSpider } from '../toolsApi.ts';

export const SPIDER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

interface Props {
  open: boolean;
  defaultProjectId?: string;
  onClose: () => void;
  onCreated?: (spider: Spider) => void;
}

interface Values {
  name: string;
  display_name?: string;
  type: SpiderType;
  cmd?: string;
  col?: string;
  project_id?: string;
  is_public: boolean;
  /** configurable spiders without a zip: Spiderfile template and start URL (PUT /config_spiders) */
  template?: string;
  start_url?: string;
}

export default function SpiderAddModal({ open, defaultProjectId, onClose, onCreated }: Props) {
  const { t } = useTranslation(['spiders', 'common']);
  const { message } = App.useApp();
  const [form] = Form.useForm<Values>();
  const create = useCreateSpider();
  const createConfig = useCreateConfigSpider();
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const colTouched = useRef(false);
  const type = Form.useWatch('type', form);

  useEffect(() => {
    if (!open) return;
    form.resetFields();
    form.setFieldsValue({ type: 'customized', is_public: false, project_id: defaultProjectId });
    colTouched.current = false;
    setFile(null);
    setProgress(null);
    setError(null);
  }, [open, form, defaultProjectId]);

  const onValuesChange = (changed: Partial<Values>) => {
    if ('col' in changed) colTouched.current = !!changed.col;
    if ('name' in changed && !colTouched.current)
      form.setFieldValue('col', changed.name ? `results_${changed.name}` : '');
  };

  const onOk = async () => {
    let values: Values;
    try {
      values = await form.validateFields();
    } catch {
      void message.error(t('spiders:submitErrors'));
      return;
    }
    setError(null);
    const name = values.name.trim();
    const body: SpiderForm = {
      name,
      display_name: values.display_name?.trim() || name,
      type: values.type,
      cmd: values.cmd?.trim() ?? '',
      col: values.col?.trim() || `results_${name}`,
      project_id: values.project_id || undefined,
      is_public: !!values.is_public,
    };
    try {
      if (file) setProgress(0);
      const spider =
        values.type === 'configurable' && !file
          ? await createConfig.mutateAsync({
              name,
              display_name: body.display_name,
              col: body.col,
              project_id: body.project_id,
              is_public: body.is_public,
              template: values.template,
              start_url: values.start_url?.trim() || undefined,
            })
          : await create.mutateAsync({ form: body, file, onProgress: setProgress });
      void message.success(t('spiders:created'));
      onCreated?.(spider);
      onClose();
    } catch (err) {
      setProgress(null);
      setError(err instanceof ApiRequestError && err.errorText ? err.errorText : t('common:fetchError'));
    }
  };

  return (
    <Modal
      open={open}
      width={680}
      title={t('spiders:add.title')}
      okText={t('spiders:add.submit')}
      cancelText={t('common:cancel')}
      onOk={() => void onOk()}
      confirmLoading={create.isPending || createConfig.isPending}
      onCancel={() => !create.isPending && onClose()}
      maskClosable={!create.isPending}
      destroyOnHidden
      className="spider-add-modal"
      okButtonProps={{ 'data-tour': 'spider-add-submit' }}
    >
      <Form form={form} layout="vertical" onValuesChange={onValuesChange} preserve={false}>
        <TourFor name="spider-list-add" />
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item
              name="name"
              data-tour="spider-add-name"
              label={t('spiders:fields.name')}
              tooltip={t('spiders:hints.name')}
              rules={[
                { required: true, whitespace: true, message: t('spiders:rules.nameRequired') },
                { pattern: SPIDER_NAME_PATTERN, message: t('spiders:rules.namePattern') },
                { max: 100 },
              ]}
            >
              <Input placeholder={t('spiders:placeholders.name')} autoFocus data-testid="spider-name" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item name="display_name" data-tour="spider-add-display-name" label={t('spiders:fields.displayName')}>
              <Input
                placeholder={t('spiders:placeholders.displayName')}
                maxLength={200}
                data-testid="spider-display-name"
              />
            </Form.Item>
          </Col>
        </Row>
        <Form.Item
          name="type"
          data-tour="spider-add-type"
          label={t('spiders:fields.type')}
          rules={[{ required: true }]}
        >
          <Radio.Group optionType="button" buttonStyle="solid" data-testid="spider-type">
            <Radio.Button value="customized">{t('spiders:types.customized')}</Radio.Button>
            <Radio.Button value="configurable">{t('spiders:types.configurable')}</Radio.Button>
          </Radio.Group>
        </Form.Item>
        {type === 'configurable' && !file && <ConfigTemplateFields />}
        <SpiderRunFields type={type} />
        <Form.Item
          data-tour="spider-add-files"
          label={t('spiders:fields.files')}
          tooltip={t('spiders:hints.files')}
          style={{ marginBottom: error ? 12 : 0 }}
        >
          <ZipDragger file={file} onChange={setFile} progress={progress} disabled={create.isPending} />
        </Form.Item>
        {error && <Alert type="error" showIcon message={error} data-testid="spider-add-error" />}
      </Form>
    </Modal>
  );
}
