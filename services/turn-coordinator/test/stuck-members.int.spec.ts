import { describeStuckMembers } from './stuck-members';

describeStuckMembers('one replica', '0');
