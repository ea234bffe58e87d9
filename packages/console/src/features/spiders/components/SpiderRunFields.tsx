/** Add-spider dialog fields on how the spider runs and where it belongs: command, results collection, project, public. */
import { Col, Form, Input, Row, Select, Switch } from 'antd';
import { useTranslation } from 'react-i18next';
import { useProjects } from '../../projects/api.ts';
import type { SpiderType } from '../types.ts';

/** A configurable spider's command comes from its Spiderfile, so only a customized one requires it. */
export default function SpiderRunFields({ type }: { type: SpiderType | undefined }) {
  const { t } = useTranslation(['spiders', 'common']);
  const projects = useProjects();
  return (
    <>
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item
            name="cmd"
            data-tour="spider-add-cmd"
            label={t('spiders:fields.cmd')}
            rules={[{ required: type !== 'configurable', whitespace: true, message: t('spiders:rules.cmdRequired') }]}
          >
            <Input placeholder={t('spiders:placeholders.cmd')} className="mono-input" data-testid="spider-cmd" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item
            name="col"
            data-tour="spider-add-col"
            label={t('spiders:fields.col')}
            tooltip={t('spiders:hints.col')}
          >
            <Input placeholder="results_<name>" className="mono-input" data-testid="spider-col" />
          </Form.Item>
        </Col>
      </Row>
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item name="project_id" data-tour="spider-add-project" label={t('spiders:fields.project')}>
            <Select
              allowClear
              showSearch
              optionFilterProp="label"
              placeholder={t('spiders:placeholders.project')}
              loading={projects.isLoading}
              options={(projects.data ?? []).map((p) => ({ value: p._id, label: p.name }))}
              data-testid="spider-project"
            />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item
            name="is_public"
            data-tour="spider-add-public"
            label={t('spiders:fields.isPublic')}
            valuePropName="checked"
            tooltip={t('spiders:hints.isPublic')}
          >
            <Switch data-testid="spider-public" />
          </Form.Item>
        </Col>
      </Row>
    </>
  );
}
