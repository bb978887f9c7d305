import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import dayjs from 'dayjs';
import { Empty, Pagination } from 'antd';
import { AntProviders } from './components/ant-providers';
import { setUpLocale } from './locale-setup';
import html from '../index.html?raw';

afterEach(() => {
  cleanup();
  dayjs.locale('en');
});

describe('language and locale', () => {
  it('THEME-01: the page is zh-CN, antd speaks Chinese and dates use the zh-cn locale', () => {
    expect(html).toMatch(/<html lang="zh-CN">/);

    render(
      <AntProviders>
        <Empty />
        <Pagination total={50} showTotal={(total) => `共 ${total} 条`} showSizeChanger />
      </AntProviders>,
    );
    expect(screen.getAllByText('暂无数据').length).toBeGreaterThan(0);
    expect(screen.getByText('10 条/页')).toBeTruthy();

    setUpLocale();
    expect(dayjs.locale()).toBe('zh-cn');
    expect(dayjs('2024-03-04').format('dddd MMMM')).toBe('星期一 三月');
  });
});
