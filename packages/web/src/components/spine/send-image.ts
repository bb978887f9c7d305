import { useEffect, useRef } from 'react';

type Receiver = (file: File) => void;

/** The spine widgets on screen, by item name: the first mounted one of a name receives. */
const receivers = new Map<string, Receiver[]>();

/**
 * Hands an image (e.g. a DICOM frame from the imaging viewer) to the spine widget of the item `name` on the open
 * form, which takes it as if the user had chosen it in its upload area. False when no such widget is shown.
 */
export function sendSpineImage(name: string, file: File): boolean {
  const receiver = receivers.get(name)?.[0];
  if (!receiver) return false;
  receiver(file);
  return true;
}

/** Lets a spine widget receive images sent to its item by `sendSpineImage`. */
export function useSpineImageReceiver(name: string, receive: Receiver): void {
  const latest = useRef(receive);
  useEffect(() => {
    latest.current = receive;
  });
  useEffect(() => {
    const receiver: Receiver = (file) => latest.current(file);
    receivers.set(name, [...(receivers.get(name) ?? []), receiver]);
    return () => {
      const rest = (receivers.get(name) ?? []).filter((r) => r !== receiver);
      if (rest.length) receivers.set(name, rest);
      else receivers.delete(name);
    };
  }, [name]);
}
