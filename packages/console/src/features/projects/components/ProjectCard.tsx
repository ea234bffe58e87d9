/** One project on the project list: name, description, tags and spider count; a click opens its spiders. */
import { Button, Card, Dropdown, Space, Tag, Tooltip, Typography } from 'antd';
import { BugOutlined, DeleteOutlined, EditOutlined, FolderOpenOutlined, MoreOutlined } from '@ant-design/icons';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { Project } from '../types.ts';

interface Props {
  project: Project;
  onEdit: (p: Project) => void;
  onDelete: (p: Project) => void;
}

export default function ProjectCard({ project: p, onEdit, onDelete }: Props) {
  const { t } = useTranslation(['projects']);
  const navigate = useNavigate();
  const tags = p.tags ?? p.tag ?? [];
  return (
    <Card
      hoverable
      className="project-card"
      data-testid="project-card"
      data-project={p.name}
      onClick={() => navigate(`/spiders?project_id=${p._id}`)}
      title={
        <Space size={8}>
          <FolderOpenOutlined className="project-card-icon" />
          <span className="project-card-name" title={p.name}>
            {p.name}
          </span>
        </Space>
      }
      extra={
        <Dropdown
          trigger={['click']}
          menu={{
            items: [
              { key: 'edit', icon: <EditOutlined />, label: t('projects:edit') },
              { key: 'delete', icon: <DeleteOutlined />, label: t('projects:delete'), danger: true },
            ],
            onClick: ({ key, domEvent }) => {
              domEvent.stopPropagation();
              if (key === 'edit') onEdit(p);
              else onDelete(p);
            },
          }}
        >
          <Button
            type="text"
            size="small"
            icon={<MoreOutlined />}
            onClick={(e) => e.stopPropagation()}
            aria-label={t('projects:actions')}
            data-testid="project-actions"
          />
        </Dropdown>
      }
    >
      <Typography.Paragraph type="secondary" ellipsis={{ rows: 2 }} className="project-card-desc">
        {p.description || t('projects:noDescription')}
      </Typography.Paragraph>
      <div className="project-card-footer">
        <div className="project-card-tags">
          {tags.length ? (
            tags.map((x) => (
              <Tag key={x} color="blue" bordered={false}>
                {x}
              </Tag>
            ))
          ) : (
            <Typography.Text type="secondary" className="project-card-notag">
              {t('projects:noTags')}
            </Typography.Text>
          )}
        </div>
        <Tooltip title={t('projects:spiderCountHint')}>
          <span className="project-card-count" data-testid="project-spider-count">
            <BugOutlined /> {t('projects:spiderCount', { count: p.spider_count ?? p.spiders?.length ?? 0 })}
          </span>
        </Tooltip>
      </div>
    </Card>
  );
}
