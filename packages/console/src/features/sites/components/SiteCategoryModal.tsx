/** Edit one site's category: free text, suggesting the categories already under the site's main category. */
import { AutoComplete, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import type { Site } from '@crawldeck/shared';
import { useCategories, useUpdateSiteCategory } from '../api.ts';
import { dialogAction } from '../../../app/dialogAction.ts';
import { toasts } from '../../../api/toasts.ts';

interface Props {
  /** The site being edited; null while the dialog is closed. */
  site: Site | null;
  category: string;
  onCategoryChange: (v: string) => void;
  onClose: () => void;
}

export function SiteCategoryModal({ site, category, onCategoryChange, onClose }: Props) {
  const { t } = useTranslation('sites');
  const update = useUpdateSiteCategory();
  const editCats = useCategories(site?.main_category);
  return (
    <Modal
      open={!!site}
      title={`${t('editCategory')} · ${site?.domain ?? ''}`}
      onCancel={onClose}
      confirmLoading={update.isPending}
      onOk={dialogAction(async () => {
        if (!site) return;
        await update.mutateAsync({ id: site._id, category: category.trim() });
        void toasts().success(t('saved'));
        onClose();
      })}
    >
      <AutoComplete
        style={{ width: '100%' }}
        value={category}
        onChange={onCategoryChange}
        options={(editCats.data ?? []).map((c) => ({ value: c }))}
        filterOption={(input, o) =>
          String(o?.value ?? '')
            .toLowerCase()
            .includes(input.toLowerCase())
        }
        placeholder={t('category')}
      />
    </Modal>
  );
}
