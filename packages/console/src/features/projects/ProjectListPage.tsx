/** Project list (/projects): cards with tags and spider counts, add / edit / delete, filter by tag. */
import { useState } from 'react';
import { App, Button, Card, Col, Empty, Input, Row, Select, Skeleton, Space, Typography } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useDeleteProject, useProjects, useProjectTags } from './api.ts';
import ProjectFormModal from './components/ProjectFormModal.tsx';
import ProjectCard from './components/ProjectCard.tsx';
import type { Project } from './types.ts';
import './projects.css';
import { dialogAction } from '../../app/dialogAction.ts';

export default function ProjectListPage() {
  const { t } = useTranslation(['projects', 'route', 'common']);
  const { modal, message } = App.useApp();
  const [tag, setTag] = useState<string | undefined>();
  const [keyword, setKeyword] = useState('');
  const projects = useProjects({ tag, keyword });
  const tags = useProjectTags();
  const del = useDeleteProject();
  const [editing, setEditing] = useState<Project | null>(null);
  const [formOpen, setFormOpen] = useState(false);

  const openForm = (p: Project | null) => {
    setEditing(p);
    setFormOpen(true);
  };

  const confirmDelete = (p: Project) => {
    modal.confirm({
      title: t('projects:deleteTitle'),
      content: t('projects:deleteConfirm', { name: p.name }),
      okText: t('common:confirm'),
      okButtonProps: { danger: true },
      cancelText: t('common:cancel'),
      onOk: dialogAction(async () => {
        await del.mutateAsync(p._id);
        void message.success(t('projects:deleted'));
      }),
    });
  };

  const list = projects.data ?? [];

  return (
    <div className="app-page projects-page" data-page="projects">
      <div className="app-page-header">
        <Typography.Title level={4} className="app-page-title">
          {t('route:projects')}
        </Typography.Title>
        <Typography.Text type="secondary" className="app-page-subtitle">
          {t('projects:subtitle')}
        </Typography.Text>
      </div>
      <Card className="projects-toolbar" size="small">
        <Space wrap>
          <Input.Search
            allowClear
            placeholder={t('projects:searchPlaceholder')}
            onSearch={(v) => setKeyword(v.trim())}
            style={{ width: 240 }}
            data-testid="project-search"
          />
          <Select
            allowClear
            value={tag}
            onChange={(v) => setTag(v)}
            placeholder={t('projects:filterByTag')}
            style={{ width: 200 }}
            options={(tags.data ?? []).map((x) => ({ value: x, label: x }))}
            data-testid="project-tag-filter"
          />
        </Space>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => openForm(null)} data-testid="project-add">
          {t('projects:add')}
        </Button>
      </Card>

      {projects.isLoading ? (
        <Card>
          <Skeleton active />
        </Card>
      ) : list.length === 0 ? (
        <Card>
          <Empty description={tag || keyword ? t('projects:noMatch') : t('projects:empty')}>
            {!tag && !keyword && (
              <Button type="primary" icon={<PlusOutlined />} onClick={() => openForm(null)}>
                {t('projects:add')}
              </Button>
            )}
          </Empty>
        </Card>
      ) : (
        <Row gutter={[16, 16]} className="project-grid">
          {list.map((p) => (
            <Col key={p._id} xs={24} sm={12} lg={8} xxl={6}>
              <ProjectCard project={p} onEdit={openForm} onDelete={confirmDelete} />
            </Col>
          ))}
        </Row>
      )}
      <ProjectFormModal open={formOpen} project={editing} onClose={() => setFormOpen(false)} />
    </div>
  );
}
