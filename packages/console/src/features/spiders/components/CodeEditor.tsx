/**
 * CodeMirror 6 editor, loaded lazily with the Files tab; the language pack for the file's extension is loaded on
 * demand (py, js/ts, json, yaml/yml, md, html, css). Mod-S saves.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import CodeMirror, { keymap, Prec, EditorView, type Extension } from '@uiw/react-codemirror';

export async function loadLanguage(filename: string): Promise<Extension | null> {
  const ext = filename.includes('.') ? filename.split('.').pop()!.toLowerCase() : '';
  switch (ext) {
    case 'py':
    case 'pyw':
      return (await import('@codemirror/lang-python')).python();
    case 'js':
    case 'mjs':
    case 'cjs':
    case 'jsx':
      return (await import('@codemirror/lang-javascript')).javascript({ jsx: ext === 'jsx' });
    case 'ts':
    case 'mts':
    case 'cts':
    case 'tsx':
      return (await import('@codemirror/lang-javascript')).javascript({ typescript: true, jsx: ext === 'tsx' });
    case 'json':
      return (await import('@codemirror/lang-json')).json();
    case 'yaml':
    case 'yml':
      return (await import('@codemirror/lang-yaml')).yaml();
    case 'md':
    case 'markdown':
      return (await import('@codemirror/lang-markdown')).markdown();
    case 'html':
    case 'htm':
      return (await import('@codemirror/lang-html')).html();
    case 'css':
      return (await import('@codemirror/lang-css')).css();
    default:
      return null;
  }
}

interface Props {
  filename: string;
  value: string;
  onChange: (value: string) => void;
  onSave: () => void;
  readOnly?: boolean;
}

export default function CodeEditor({ filename, value, onChange, onSave, readOnly }: Props) {
  const [language, setLanguage] = useState<Extension | null>(null);
  const saveRef = useRef(onSave);
  saveRef.current = onSave;

  useEffect(() => {
    let cancelled = false;
    setLanguage(null);
    void loadLanguage(filename).then((l) => {
      if (!cancelled) setLanguage(l);
    });
    return () => {
      cancelled = true;
    };
  }, [filename]);

  const extensions = useMemo(() => {
    const save = Prec.highest(
      keymap.of([
        {
          key: 'Mod-s',
          preventDefault: true,
          run: () => {
            saveRef.current();
            return true;
          },
        },
      ]),
    );
    return [save, EditorView.lineWrapping, ...(language ? [language] : [])];
  }, [language]);

  return (
    <CodeMirror
      className="code-editor"
      value={value}
      height="100%"
      theme="light"
      readOnly={readOnly}
      extensions={extensions}
      onChange={onChange}
      basicSetup={{ foldGutter: true, highlightActiveLine: true, tabSize: 4 }}
      data-testid="code-editor"
    />
  );
}
