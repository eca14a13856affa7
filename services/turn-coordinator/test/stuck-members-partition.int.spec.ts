import { describeStuckMembers } from './stuck-members';

describeStuckMembers('a partition', '1');
