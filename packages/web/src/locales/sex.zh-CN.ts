export const SEX_TEXT = { male: '男', female: '女' } as const;
