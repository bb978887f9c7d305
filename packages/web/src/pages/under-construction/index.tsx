import { Result } from 'antd';
import { useMatches } from 'react-router';
import { CONSTRUCTION_TEXT } from '../../locales/construction.zh-CN';
import type { RouteMeta } from '../../router-guard';

/** The honest placeholder for routes whose feature a later issue builds. */
export default function UnderConstructionPage() {
  const meta = useMatches().at(-1)?.handle as RouteMeta | undefined;
  return (
    <div className="page-card">
      <h2 className="page-title">{meta?.title}</h2>
      <Result status="info" title={CONSTRUCTION_TEXT.title} />
    </div>
  );
}
