import { Navigate, useLocation, useParams } from 'react-router';

/** /redirect/<path> immediately replaces itself with /<path>: the tab strip's refresh (SHELL-28). */
export default function RedirectPage() {
  const { '*': rest = '' } = useParams();
  const location = useLocation();
  return <Navigate to={`/${rest}${location.search}`} replace />;
}
