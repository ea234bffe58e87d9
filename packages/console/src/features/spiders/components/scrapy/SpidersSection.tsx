/** The Scrapy project's spiders: add one from a template, jump to a spider's file. */
import { useState } from 'react';
import { App, Button, Empty, Form, Input, List, Select, Typography } from 'antd';
import { FileSearchOutlined, PlusOutlined } from '@ant-design/icons';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { SCRAPY_SPIDER_TEMPLATES } from '@crawldeck/shared';
import { spiderKeys } from '../../api.ts';
import { addScrapySpider, errorText, scrapySpiderFilepath, toolKeys, useScrapySection } from '../../toolsApi.ts';
import type { Spider } from '../../types.ts';
import { IDENT, SectionError, SectionToolbar, useSectionError } from './scrapySection.tsx';

export default function SpidersSection({ spider }: { spider: Spider }) {
  const id = spider._id;
  const { t } = useTranslation('scrapy');
  const { message } = App.useApp();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const query = useScrapySection(id, 'spiders');
  const [error, setError] = useSectionError(query);
  const [form] = Form.useForm<{ name: string; domain: string; template: string }>();
  const [adding, setAdding] = useState(false);
  const [jumping, setJumping] = useState<string | null>(null);

  const jump = async (name: string) => {
    setJumping(name);
    try {
      const path = await scrapySpiderFilepath(id, name);
      setError('');
      navigate(`/spiders/${id}?tab=files&file=${encodeURIComponent(path)}`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setJumping(null);
    }
  };

  const add = async () => {
    let v: { name: string; domain: string; template: string };
    try {
      v = await form.validateFields();
    } catch {
      return;
    }
    setAdding(true);
    try {
      const created = await addScrapySpider(id, { name: v.name.trim(), domain: v.domain.trim(), template: v.template });
      setError('');
      form.resetFields();
      void message.success(t('spiders.added', { name: created.name, path: created.filepath }));
      await qc.invalidateQueries({ queryKey: toolKeys.scrapy(id, 'spiders') });
      void qc.invalidateQueries({ queryKey: spiderKeys.files(id) });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setAdding(false);
    }
  };

  return (
    <div className="scrapy-section" data-testid="scrapy-spiders">
      <SectionError section="spiders" error={error} />
      <Form
        form={form}
        layout="inline"
        className="scrapy-add-spider"
        initialValues={{ template: 'basic' }}
        onFinish={() => void add()}
      >
        <Form.Item
          name="name"
          rules={[
            { required: true, message: t('spiders.nameRequired') },
            { pattern: IDENT, message: t('identifier') },
          ]}
        >
          <Input placeholder={t('spiders.name')} className="mono-input" data-testid="scrapy-spider-name" />
        </Form.Item>
        <Form.Item
          name="domain"
          rules={[
            { required: true, message: t('spiders.domainRequired') },
            { pattern: /^[A-Za-z0-9][A-Za-z0-9.:/_-]*$/, message: t('spiders.domainPattern') },
          ]}
        >
          <Input placeholder={t('spiders.domain')} className="mono-input" data-testid="scrapy-spider-domain" />
        </Form.Item>
        <Form.Item name="template">
          <Select
            style={{ width: 120 }}
            options={SCRAPY_SPIDER_TEMPLATES.map((x) => ({ value: x, label: x }))}
            aria-label={t('spiders.template')}
          />
        </Form.Item>
        <Form.Item>
          <Button
            type="primary"
            htmlType="submit"
            icon={<PlusOutlined />}
            loading={adding}
            data-testid="scrapy-spider-add"
          >
            {t('spiders.add')}
          </Button>
        </Form.Item>
      </Form>
      <SectionToolbar onReload={() => void query.refetch()} loading={query.isFetching} />
      <List
        size="small"
        bordered
        loading={query.isLoading}
        dataSource={query.data ?? []}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('spiders.empty')} /> }}
        renderItem={(name) => (
          <List.Item
            data-testid="scrapy-spider-row"
            actions={[
              <Button
                key="file"
                type="link"
                size="small"
                icon={<FileSearchOutlined />}
                loading={jumping === name}
                onClick={() => void jump(name)}
                data-testid="scrapy-jump"
              >
                {t('spiders.jump')}
              </Button>,
            ]}
          >
            <Typography.Text className="mono-text" strong>
              {name}
            </Typography.Text>
            <Typography.Text type="secondary" className="mono-text scrapy-crawl-cmd">
              scrapy crawl {name}
            </Typography.Text>
          </List.Item>
        )}
      />
    </div>
  );
}
