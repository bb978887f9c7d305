import { EditorContent, useEditor, useEditorState } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import Image from '@tiptap/extension-image';
import { Button, Space, Tooltip, Upload } from 'antd';
import {
  BoldOutlined,
  ItalicOutlined,
  OrderedListOutlined,
  PictureOutlined,
  RedoOutlined,
  UndoOutlined,
  UnorderedListOutlined,
} from '@ant-design/icons';
import { CONTENT_TEXT } from '../../../locales/content.zh-CN';
import './content.css';

interface Props {
  value?: string;
  onChange?: (html: string) => void;
  /** Stores a picture and answers its public URL (the content-image path). */
  uploadImage: (file: File) => Promise<string>;
}

/**
 * The article editor (Tiptap on ProseMirror): what it writes is only a proposal; the server sanitises the
 * HTML with its allow-list on every save (packages/server/src/modules/knowledge/sanitize.ts).
 */
export function RichTextEditor({ value, onChange, uploadImage }: Props) {
  const editor = useEditor({
    extensions: [StarterKit.configure({ link: { openOnClick: false } }), Image],
    content: value ?? '',
    editorProps: { attributes: { class: 'rich-text-content', 'aria-label': CONTENT_TEXT.content, role: 'textbox' } },
    onUpdate: ({ editor: e }) => onChange?.(e.isEmpty ? '' : e.getHTML()),
  });
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      bold: e?.isActive('bold') ?? false,
      italic: e?.isActive('italic') ?? false,
      h2: e?.isActive('heading', { level: 2 }) ?? false,
      bullet: e?.isActive('bulletList') ?? false,
      ordered: e?.isActive('orderedList') ?? false,
      quote: e?.isActive('blockquote') ?? false,
    }),
  });
  const chain = () => editor.chain().focus();
  const tool = (label: string, icon: React.ReactNode, active: boolean, run: () => void) => (
    <Tooltip title={label}>
      <Button
        aria-label={label}
        size="small"
        type={active ? 'primary' : 'text'}
        icon={icon}
        // A press keeps the focus and the caret in the text: otherwise the button takes them and the editor only
        // gets them back a frame later, and keys typed at once land in the wrong place.
        onMouseDown={(event) => event.preventDefault()}
        onClick={run}
      />
    </Tooltip>
  );
  return (
    <div className="rich-text">
      <Space size={2} wrap className="rich-text-toolbar">
        {tool(CONTENT_TEXT.bold, <BoldOutlined />, state?.bold ?? false, () => chain().toggleBold().run())}
        {tool(CONTENT_TEXT.italic, <ItalicOutlined />, state?.italic ?? false, () => chain().toggleItalic().run())}
        {tool(CONTENT_TEXT.heading, <span className="rich-text-h">H2</span>, state?.h2 ?? false, () =>
          chain().toggleHeading({ level: 2 }).run(),
        )}
        {tool(CONTENT_TEXT.bulletList, <UnorderedListOutlined />, state?.bullet ?? false, () =>
          chain().toggleBulletList().run(),
        )}
        {tool(CONTENT_TEXT.orderedList, <OrderedListOutlined />, state?.ordered ?? false, () =>
          chain().toggleOrderedList().run(),
        )}
        {tool(CONTENT_TEXT.quote, <span className="rich-text-h">❝</span>, state?.quote ?? false, () =>
          chain().toggleBlockquote().run(),
        )}
        <Upload
          accept="image/png,image/jpeg,image/gif,image/webp"
          showUploadList={false}
          beforeUpload={(file) => {
            void uploadImage(file).then((src) => chain().setImage({ src, alt: file.name }).run());
            return false;
          }}
        >
          <Tooltip title={CONTENT_TEXT.image}>
            <Button aria-label={CONTENT_TEXT.image} size="small" type="text" icon={<PictureOutlined />} />
          </Tooltip>
        </Upload>
        {tool(CONTENT_TEXT.undo, <UndoOutlined />, false, () => chain().undo().run())}
        {tool(CONTENT_TEXT.redo, <RedoOutlined />, false, () => chain().redo().run())}
      </Space>
      <EditorContent editor={editor} />
    </div>
  );
}
