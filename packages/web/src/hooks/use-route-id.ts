import { useParams } from 'react-router';
import { positiveIdOf } from '../utils/positive-id';

/** The id in the route parameter `name` (`/study/:id/…`), or null when it is not a positive whole number. */
export function useRouteId(name: string): number | null {
  return positiveIdOf(useParams()[name]);
}
