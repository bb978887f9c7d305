import { create } from 'zustand';

/** Whether the 任务 drawer is open: the top bar's button opens it, and so does a page that has just started a job. */
export const useJobsDrawer = create<{ open: boolean; show: () => void; hide: () => void }>((set) => ({
  open: false,
  show: () => set({ open: true }),
  hide: () => set({ open: false }),
}));
