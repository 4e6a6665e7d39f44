import { Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '../lib/session.js';
import { ForbiddenScreen } from './status-screens.js';

/** Spec §2: without a stored user, a guarded route sends the visitor to /login, remembering the origin. */
export const RequireUser = () => {
  const { user } = useSession();
  const location = useLocation();
  if (!user) return <Navigate to="/login" replace state={{ from: location }} />;
  return <Outlet />;
};

/** Admin routes: like RequireUser, and an ordinary user sees a no-permission screen. */
export const RequireAdmin = () => {
  const { user, isAdmin } = useSession();
  const location = useLocation();
  if (!user) return <Navigate to="/login" replace state={{ from: location }} />;
  if (!isAdmin) return <ForbiddenScreen />;
  return <Outlet />;
};
