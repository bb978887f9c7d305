import {
  ApartmentOutlined,
  AppstoreOutlined,
  BarChartOutlined,
  CalendarOutlined,
  ClusterOutlined,
  FileSearchOutlined,
  FileTextOutlined,
  FolderOutlined,
  HomeOutlined,
  MenuOutlined,
  MessageOutlined,
  ProfileOutlined,
  ProjectOutlined,
  QuestionCircleOutlined,
  SafetyOutlined,
  ScheduleOutlined,
  SettingOutlined,
  TeamOutlined,
  UserOutlined,
  WechatOutlined,
} from '@ant-design/icons';
import type { ReactNode } from 'react';

// Menu rows name their icon with a short word; unknown words fall back to a neutral icon.
const ICONS: Record<string, ReactNode> = {
  system: <SettingOutlined />,
  setting: <SettingOutlined />,
  monitor: <BarChartOutlined />,
  user: <UserOutlined />,
  peoples: <TeamOutlined />,
  team: <TeamOutlined />,
  role: <SafetyOutlined />,
  tree: <ApartmentOutlined />,
  dept: <ApartmentOutlined />,
  organization: <ApartmentOutlined />,
  'tree-table': <MenuOutlined />,
  menu: <MenuOutlined />,
  log: <FileSearchOutlined />,
  form: <FileTextOutlined />,
  documentation: <FileTextOutlined />,
  list: <ProfileOutlined />,
  project: <ProjectOutlined />,
  study: <ProjectOutlined />,
  home: <HomeOutlined />,
  dashboard: <HomeOutlined />,
  calendar: <CalendarOutlined />,
  date: <CalendarOutlined />,
  follow: <ScheduleOutlined />,
  search: <FileSearchOutlined />,
  question: <QuestionCircleOutlined />,
  doubt: <QuestionCircleOutlined />,
  message: <MessageOutlined />,
  wechat: <WechatOutlined />,
  cluster: <ClusterOutlined />,
  folder: <FolderOutlined />,
};

export function menuIcon(name: string | null | undefined): ReactNode {
  if (!name) return <AppstoreOutlined />;
  return ICONS[name] ?? ICONS[name.toLowerCase()] ?? <AppstoreOutlined />;
}
