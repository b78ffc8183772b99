// SPDX-License-Identifier: Apache-2.0
// UI chrome strings. Names of settings, looks and aspect ratios come from the server (Swift).

export const lang = (navigator.language || 'en').toLowerCase().startsWith('zh') ? 'zh' : 'en';

const strings = {
  en: {
    library: 'Library', import: 'Import photos', dropHint: 'Drop photos here to import them',
    showDeleted: 'Recently deleted', photos: 'Photos', editSessions: 'Edit sessions', noPhotos: 'No photos yet: import some.',
    noSessions: 'No saved edits yet.', open: 'Edit', delete: 'Delete', restore: 'Restore', edited: 'Edited',
    uploading: 'Uploading', imported: 'Imported', failed: 'Failed', back: 'Back to library',
    undo: 'Undo', redo: 'Redo', compare: 'Hold to compare with the original', crop: 'Crop and rotate',
    save: 'Save', revert: 'Revert to original', export: 'Export', quality: 'Quality', format: 'Format',
    looks: 'Looks', none: 'None', suggestions: 'Suggestions', adjust: 'Adjust',
    light: 'Light', color: 'Colour', detail: 'Detail', effects: 'Effects', colorMixer: 'Colour mixer',
    band: 'Band', channel: 'Channel', hue: 'Hue', saturation: 'Saturation', luminance: 'Luminance',
    red: 'Red', orange: 'Orange', yellow: 'Yellow', green: 'Green', aqua: 'Aqua', blue: 'Blue', purple: 'Purple', magenta: 'Magenta',
    aspect: 'Aspect ratio', straighten: 'Straighten', rotateLeft: 'Rotate left', rotateRight: 'Rotate right',
    flip: 'Flip', resetCrop: 'Reset', done: 'Done', saved: 'Saved', reverted: 'Reverted to the original',
    unsaved: 'You have unsaved changes. Leave without saving?', confirmRevert: 'Revert this photo to its original?',
    conflict: 'This photo was saved from another window after you opened it. Replace that edit with yours?',
    loading: 'Loading…', exporting: 'Exporting…', resetHint: 'Double-click or press Delete to reset',
    cropArea: 'Crop area', handle: 'Crop handle', photo: 'Photo', error: 'Error',
    lookOn: 'Look', suggestionOn: 'Suggestion',
  },
  zh: {
    library: '图库', import: '导入照片', dropHint: '将照片拖放到此处即可导入',
    showDeleted: '最近删除', photos: '照片', editSessions: '编辑记录', noPhotos: '还没有照片：请导入。',
    noSessions: '还没有保存的编辑。', open: '编辑', delete: '删除', restore: '恢复', edited: '已编辑',
    uploading: '正在上传', imported: '已导入', failed: '失败', back: '返回图库',
    undo: '撤销', redo: '重做', compare: '按住与原图对比', crop: '裁剪和旋转',
    save: '存储', revert: '复原为原始照片', export: '导出', quality: '质量', format: '格式',
    looks: '滤镜', none: '无', suggestions: '建议', adjust: '调整',
    light: '光效', color: '颜色', detail: '细节', effects: '效果', colorMixer: '混色器',
    band: '色带', channel: '通道', hue: '色相', saturation: '饱和度', luminance: '明亮度',
    red: '红色', orange: '橙色', yellow: '黄色', green: '绿色', aqua: '浅绿色', blue: '蓝色', purple: '紫色', magenta: '洋红色',
    aspect: '宽高比', straighten: '拉直', rotateLeft: '向左旋转', rotateRight: '向右旋转',
    flip: '翻转', resetCrop: '复位', done: '完成', saved: '已存储', reverted: '已复原为原始照片',
    unsaved: '有未存储的更改。确定不存储就离开吗？', confirmRevert: '将此照片复原为原始照片？',
    conflict: '打开此照片后，另一个窗口已存储了它。要用你的编辑替换吗？',
    loading: '正在载入…', exporting: '正在导出…', resetHint: '双击或按 Delete 键复位',
    cropArea: '裁剪区域', handle: '裁剪控制点', photo: '照片', error: '错误',
    lookOn: '滤镜', suggestionOn: '建议',
  },
};

/** The UI string for `key` in the browser's language. */
export function t(key) {
  return strings[lang][key] ?? strings.en[key] ?? key;
}

/** A server-side `{en, zh}` name in the browser's language. */
export function nameOf(name) {
  return (name && name[lang]) || (name && name.en) || '';
}

document.documentElement.lang = lang === 'zh' ? 'zh-Hans' : 'en';
