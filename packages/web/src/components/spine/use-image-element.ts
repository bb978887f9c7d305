import { useEffect, useState } from 'react';

/** The loaded picture of `src` for a canvas, or null until it has loaded (and while another src loads). */
export function useImageElement(src: string | null): HTMLImageElement | null {
  const [loaded, setLoaded] = useState<{ src: string; image: HTMLImageElement } | null>(null);
  useEffect(() => {
    if (!src) return;
    const image = new window.Image();
    let live = true;
    image.onload = () => {
      if (live) setLoaded({ src, image });
    };
    image.src = src;
    return () => {
      live = false;
    };
  }, [src]);
  return loaded && loaded.src === src ? loaded.image : null;
}
