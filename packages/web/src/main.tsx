import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import NProgress from 'nprogress';
import 'nprogress/nprogress.css';
import './styles/global.css';
import { App } from './app';
import { setUpLocale } from './locale-setup';
import { watchRootFontSize } from './theme';

setUpLocale();
// nprogress's own bar carries role="bar", no ARIA role: the bar is decoration (the page shows its own loading).
NProgress.configure({
  showSpinner: false,
  template: '<div class="bar" aria-hidden="true"><div class="peg"></div></div>',
  barSelector: '.bar',
});
NProgress.start();
watchRootFontSize();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
