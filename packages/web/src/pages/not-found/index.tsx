import { Button, Result } from 'antd';
import { useNavigate } from 'react-router';
import { T } from '../../locales/zh-CN';

export default function NotFoundPage() {
  const navigate = useNavigate();
  return (
    <div className="page-card">
      <Result
        status="404"
        title={T.notFound.title}
        subTitle={T.notFound.subTitle}
        extra={
          <Button type="primary" onClick={() => void navigate('/')}>
            {T.notFound.back}
          </Button>
        }
      />
    </div>
  );
}
