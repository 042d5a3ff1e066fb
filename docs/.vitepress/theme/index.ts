// The default theme, plus the few styles of our own pages (the benchmark charts).
import DefaultTheme from 'vitepress/theme';
import './custom.css';

export default DefaultTheme;
