import { createRoot } from 'react-dom/client';
import { App } from './app';
import { session } from './auth/session';
import './styles.css';

void session.start();
createRoot(document.getElementById('root')!).render(<App />);
