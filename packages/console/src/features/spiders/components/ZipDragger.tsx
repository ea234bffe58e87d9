/** Drag-and-drop zip picker with the hint on what a zip must hold; the upload itself is done by the caller (with progress). */
import { App, Progress, Typography, Upload } from 'antd';
import { InboxOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';

interface Props {
  file: File | null;
  onChange: (file: File | null) => void;
  /** 0..100 while uploading, null otherwise. */
  progress: number | null;
  disabled?: boolean;
}

export function isZip(file: File): boolean {
  return /\.zip$/i.test(file.name);
}

export default function ZipDragger({ file, onChange, progress, disabled }: Props) {
  const { t } = useTranslation('spiders');
  const { message } = App.useApp();
  return (
    <div className="zip-dragger" data-testid="zip-dragger">
      <Upload.Dragger
        accept=".zip,application/zip"
        multiple={false}
        maxCount={1}
        disabled={disabled}
        fileList={file ? [{ uid: 'zip', name: file.name, size: file.size, status: 'done' }] : []}
        beforeUpload={(f) => {
          if (!isZip(f)) {
            void message.error(t('upload.onlyZip'));
            return Upload.LIST_IGNORE;
          }
          onChange(f);
          return false;
        }}
        onRemove={() => {
          onChange(null);
          return true;
        }}
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined />
        </p>
        <p className="ant-upload-text">{t('upload.dragText')}</p>
        <p className="ant-upload-hint">{t('upload.hint')}</p>
      </Upload.Dragger>
      {progress !== null && (
        <div className="zip-progress">
          <Typography.Text type="secondary">
            {progress < 100 ? t('upload.uploading') : t('upload.processing')}
          </Typography.Text>
          <Progress
            percent={progress}
            size="small"
            status={progress < 100 ? 'active' : 'normal'}
            data-testid="upload-progress"
          />
        </div>
      )}
    </div>
  );
}
