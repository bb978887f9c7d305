import { useLayoutEffect, useRef, useState } from 'react';

/**
 * The inner width of the element the returned ref is put on, followed as the window, the side menu or the page
 * changes it. 0 until measured (and where the browser cannot measure, as in unit tests).
 */
export function useContainerWidth<E extends HTMLElement = HTMLDivElement>() {
  const ref = useRef<E>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => setWidth(Math.floor(element.clientWidth));
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}
