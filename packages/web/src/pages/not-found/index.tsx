import { Button, Result } from 'antd';
import { useNavigate } from 'react-router';
import { NOT_FOUND_TEXT } from '../../locales/not-found.zh-CN';

export default function NotFoundPage() {
  const navigate = useNavigate();
  return (
    <div className="page-card">
      <Result
        status="404"
        title={NOT_FOUND_TEXT.title}
        subTitle={NOT_FOUND_TEXT.subTitle}
        extra={
          <Button type="primary" onClick={() => void navigate('/')}>
            {NOT_FOUND_TEXT.back}
          </Button>
        }
      />
    </div>
  );
}
