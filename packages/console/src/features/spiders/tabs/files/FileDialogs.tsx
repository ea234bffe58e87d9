/** The Files tab's dialogs: new file or folder, rename, and replacing every file from a zip. */
import { useState } from 'react';
import { Alert, App, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { useFileMutations } from '../../api.ts';
import PathModal from '../../components/PathModal.tsx';
import ZipDragger from '../../components/ZipDragger.tsx';
import type { Dialog } from './fileModel.ts';

interface FileDialogsProps {
  dialog: Dialog;
  setDialog: (dialog: Dialog) => void;
  submitDialog: (value: string) => Promise<void>;
  files: ReturnType<typeof useFileMutations>;
  /** Called after a zip replaced every file: nothing open or selected stays valid. */
  onReplaced: () => void;
}

export default function FileDialogs({ dialog, setDialog, submitDialog, files, onReplaced }: FileDialogsProps) {
  const { t } = useTranslation(['spiders', 'common']);
  const { message } = App.useApp();
  const [zip, setZip] = useState<File | null>(null);
  const [zipProgress, setZipProgress] = useState<number | null>(null);

  const doUpload = async () => {
    if (!zip) return;
    setZipProgress(0);
    try {
      const res = await files.uploadZip(zip, setZipProgress);
      setDialog(null);
      setZip(null);
      onReplaced();
      void message.success(t('spiders:files.uploaded', { count: res?.files ?? 0 }));
    } catch {
      // toast shown by the upload helper
    } finally {
      setZipProgress(null);
    }
  };

  return (
    <>
      <PathModal
        open={dialog?.kind === 'newFile' || dialog?.kind === 'newDir'}
        title={dialog?.kind === 'newDir' ? t('spiders:files.newDir') : t('spiders:files.newFile')}
        label={dialog?.kind === 'newDir' ? t('spiders:files.dirName') : t('spiders:files.fileName')}
        hint={dialog && 'dir' in dialog ? t('spiders:files.inFolder', { dir: dialog.dir || '/' }) : undefined}
        onCancel={() => setDialog(null)}
        onSubmit={submitDialog}
      />
      <PathModal
        open={dialog?.kind === 'rename'}
        title={t('spiders:files.rename')}
        label={t('spiders:files.newPath')}
        initial={dialog?.kind === 'rename' ? dialog.entry.path : ''}
        onCancel={() => setDialog(null)}
        onSubmit={submitDialog}
      />
      <Modal
        open={dialog?.kind === 'upload'}
        title={t('spiders:files.uploadZip')}
        okText={t('spiders:files.uploadSubmit')}
        cancelText={t('common:cancel')}
        okButtonProps={{ disabled: !zip, 'data-testid': 'upload-submit' }}
        confirmLoading={zipProgress !== null}
        onOk={() => void doUpload()}
        onCancel={() => {
          if (zipProgress === null) {
            setDialog(null);
            setZip(null);
          }
        }}
        destroyOnHidden
      >
        <Alert type="warning" showIcon message={t('spiders:files.uploadReplaces')} className="files-upload-warning" />
        <ZipDragger file={zip} onChange={setZip} progress={zipProgress} disabled={zipProgress !== null} />
      </Modal>
    </>
  );
}
